//! The TCP profile as the laws see it: which stack's form of a law runs by default.

/// The TCP profile (`tcp.profile`, docs/tcp.md) as the laws see it: where Linux, ns-2 and
/// ns-3 write one algorithm differently (docs/algorithms.md says where), the profile
/// picks the default form and an algorithm's own parameters (`form`, `hystart`) override
/// it. The sender's side of a profile (initial window, SACK, PRR, ...) is resolved in
/// `net` from `scenario::TcpOpts`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Profile {
    /// Linux's TCP (the default): its `tcp_*.c` forms.
    #[default]
    Linux,
    /// The seed studies' ns-2 set-ups: the RFC and paper forms.
    Ns2,
    /// ns-3.44's TCP models.
    Ns3,
}

impl Profile {
    pub const NAMES: [&'static str; 3] = ["linux", "ns2", "ns3"];

    pub fn parse(s: &str) -> Result<Profile, String> {
        match s {
            "linux" => Ok(Profile::Linux),
            "ns2" => Ok(Profile::Ns2),
            "ns3" => Ok(Profile::Ns3),
            other => Err(format!(
                "unknown TCP profile \"{other}\" (known: linux, ns2, ns3)"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Linux => "linux",
            Profile::Ns2 => "ns2",
            Profile::Ns3 => "ns3",
        }
    }
}
