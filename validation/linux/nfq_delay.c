/* nfq_delay: hold every packet of an NFQUEUE for a fixed time, then accept it.
 *
 * A constant-delay "wire" for kernels without netem.  One FIFO, verdicts in
 * arrival order, so packets are never reordered; the kernel queue is made long
 * enough (--maxlen) that nothing is dropped at the rates used here (check the
 * counters printed at exit and /proc/net/netfilter/nfnetlink_queue).
 *
 *   nfq_delay QUEUE DELAY_US [MAXLEN]
 *
 * Runs until SIGTERM/SIGINT, then prints one line of statistics to stderr:
 * packets, max and mean lateness of a release (us) over the target, max packets
 * held, and how many releases were more than 1 ms and 5 ms late.
 *
 * With NFQ_LATE_LOG=PATH in the environment it also writes one line per wake-up that
 * released a packet more than 1 ms late: CLOCK_MONOTONIC ns, the batch's largest
 * lateness ns, its packets (after a header line with both clocks, to align the log
 * with packet captures).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#define RING (1u << 20)
static uint32_t ids[RING];
static uint64_t due[RING];
static uint64_t head, tail; /* head: next to release, tail: next free */
static uint64_t delay_ns, npkts, max_late_ns, max_held, sum_late_ns, nrel, late1ms, late5ms;
static volatile sig_atomic_t stop;
static FILE *late_log;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

static int cb(struct nfq_q_handle *qh, struct nfgenmsg *m, struct nfq_data *d, void *data) {
    (void)qh; (void)m; (void)data;
    struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(d);
    if (!ph) return 0;
    if (tail - head >= RING) { fprintf(stderr, "nfq_delay: ring full\n"); exit(2); }
    ids[tail % RING] = ntohl(ph->packet_id);
    due[tail % RING] = now_ns() + delay_ns;
    tail++;
    npkts++;
    if (tail - head > max_held) max_held = tail - head;
    return 0;
}

static void on_sig(int s) { (void)s; stop = 1; }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s QUEUE DELAY_US [MAXLEN]\n", argv[0]); return 1; }
    int qnum = atoi(argv[1]);
    delay_ns = strtoull(argv[2], 0, 10) * 1000ull;
    uint32_t maxlen = argc > 3 ? (uint32_t)atoi(argv[3]) : 65536;
    signal(SIGTERM, on_sig); signal(SIGINT, on_sig);

    struct nfq_handle *h = nfq_open();
    if (!h) { perror("nfq_open"); return 1; }
    nfq_unbind_pf(h, AF_INET); /* ignore errors: harmless on new kernels */
    if (nfq_bind_pf(h, AF_INET) < 0) { perror("nfq_bind_pf"); return 1; }
    struct nfq_q_handle *qh = nfq_create_queue(h, qnum, &cb, NULL);
    if (!qh) { perror("nfq_create_queue"); return 1; }
    if (nfq_set_mode(qh, NFQNL_COPY_META, 0) < 0) { perror("nfq_set_mode"); return 1; }
    if (nfq_set_queue_maxlen(qh, maxlen) < 0) { perror("nfq_set_queue_maxlen"); return 1; }
    int fd = nfq_fd(h);
    nfnl_rcvbufsiz(nfq_nfnlh(h), 32 * 1024 * 1024);
    int one = 1;
    setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one);
    fprintf(stderr, "nfq_delay: queue %d delay %llu us maxlen %u ready\n", qnum,
            (unsigned long long)(delay_ns / 1000), maxlen);

    const char *log_path = getenv("NFQ_LATE_LOG");
    if (log_path && (late_log = fopen(log_path, "w"))) {
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        fprintf(late_log, "# monotonic_ns %llu realtime_ns %llu\n", (unsigned long long)now_ns(),
                (unsigned long long)rt.tv_sec * 1000000000ull + (unsigned long long)rt.tv_nsec);
    }
    static char buf[65536] __attribute__((aligned));
    while (!stop) {
        uint64_t t = now_ns(), batch_max = 0, batch_n = 0;
        while (head < tail && due[head % RING] <= t) {
            uint64_t late = t - due[head % RING];
            if (late > batch_max) batch_max = late;
            batch_n++;
            if (late > max_late_ns) max_late_ns = late;
            sum_late_ns += late; nrel++;
            if (late > 1000000) late1ms++;
            if (late > 5000000) late5ms++;
            nfq_set_verdict(qh, ids[head % RING], NF_ACCEPT, 0, NULL);
            head++;
        }
        if (late_log && batch_max > 1000000)
            fprintf(late_log, "%llu %llu %llu\n", (unsigned long long)t,
                    (unsigned long long)batch_max, (unsigned long long)batch_n);
        struct timespec to, *top = NULL;
        if (head < tail) {
            uint64_t w = due[head % RING] - t;
            if (due[head % RING] <= t) w = 0;
            to.tv_sec = w / 1000000000ull; to.tv_nsec = w % 1000000000ull;
            top = &to;
        } else { to.tv_sec = 0; to.tv_nsec = 100000000; top = &to; }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = ppoll(&p, 1, top, NULL);
        if (r < 0) { if (errno == EINTR) continue; perror("ppoll"); break; }
        if (r > 0) {
            for (;;) {
                ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
                if (n < 0) {
                    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
                    if (errno == ENOBUFS) { fprintf(stderr, "nfq_delay: ENOBUFS\n"); continue; }
                    perror("recv"); stop = 1; break;
                }
                nfq_handle_packet(h, buf, (int)n);
            }
        }
    }
    /* release what is still held, so nothing is lost at shutdown */
    while (head < tail) { nfq_set_verdict(qh, ids[head % RING], NF_ACCEPT, 0, NULL); head++; }
    fprintf(stderr, "nfq_delay: packets %llu max_late_us %.1f mean_late_us %.1f max_held %llu"
            " late_over_1ms %llu late_over_5ms %llu\n",
            (unsigned long long)npkts, max_late_ns / 1e3, nrel ? sum_late_ns / 1e3 / nrel : 0.0,
            (unsigned long long)max_held, (unsigned long long)late1ms, (unsigned long long)late5ms);
    if (late_log) fclose(late_log);
    nfq_destroy_queue(qh);
    nfq_close(h);
    return 0;
}
