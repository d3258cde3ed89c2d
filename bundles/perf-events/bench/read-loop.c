/* The read-latency benchmark's workload: N read(2)s of one byte from /dev/zero in a tight loop;
   the loop's time on stderr as "LOOP seconds" (bench/read-latency.sh). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int fd = open("/dev/zero", O_RDONLY);
    if (fd < 0) return 2;
    char c;
    long got = 0;
    double t0 = now();
    for (long i = 0; i < n; i++) got += read(fd, &c, 1);
    double t1 = now();
    printf("%ld\n", got);
    fprintf(stderr, "LOOP %.6f\n", t1 - t0);
    return got == n ? 0 : 1;
}
