/*
 * Not Herald: the floor of a durable write without SQLite, for comparison with sqlite_floor.c. Each notification's
 * fields (the same the group commit inserts: apns-id, token, topic, bundle id, environment, push type, priority,
 * time, the 200-byte payload, the trace's `accepted` line) are appended to a file as one length-prefixed record; each
 * batch is one write() and one fdatasync(), as a group commit to a log of its own would do before its `200`s.
 *
 *   log_floor DIR [N] [BATCH]
 *
 * Prints the process's CPU time (user + system) per notification, in microseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: log_floor DIR [N] [BATCH]\n");
        return 2;
    }
    const int count = argc > 2 ? atoi(argv[2]) : 200000;
    const int batch = argc > 3 ? atoi(argv[3]) : 500;
    if (count <= 0 || batch <= 0) {
        fprintf(stderr, "log_floor: N and BATCH must be positive\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/herald-log-floor-XXXXXX", argv[1]);
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    unlink(path);
    const char *token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    char payload[200];
    memset(payload, ' ', sizeof payload);
    memcpy(payload, "{\"aps\":{\"alert\":\"Hello\"}", 24);
    payload[sizeof payload - 1] = '}';
    /* A record: its length (4 bytes), the text fields (under 256 bytes), the payload. */
    enum { fields = 256, record_size = 4 + fields + sizeof payload };
    char *buffer = malloc((size_t)batch * record_size);
    if (buffer == NULL) {
        perror("malloc");
        return 1;
    }
    srand(1);

    double start = cpu_seconds();
    long long accepted = 0;
    for (int done = 0; done < count; done += batch) {
        int size = count - done < batch ? count - done : batch;
        size_t used = 0;
        for (int index = 0; index < size; index++, accepted++) {
            long long now = 1795000000000LL + accepted / 50;
            char *record = buffer + used + 4;
            int length = snprintf(record, fields,
                "%08llx-%04llx-7%03x-8%03x-%04x%08x\t%s\tcom.example.app\tcom.example.app\tsandbox\talert\t10\t"
                "%lld\tA0\t",
                (now >> 16) & 0xffffffffLL, now & 0xffff, rand() & 0xfff, rand() & 0xfff, rand() & 0xffff,
                (unsigned)rand(), token, now);
            if (length < 0 || length >= fields) {
                fprintf(stderr, "log_floor: a record's fields do not fit\n");
                return 1;
            }
            memcpy(record + length, payload, sizeof payload);
            length += (int)sizeof payload;
            memcpy(buffer + used, &length, 4);
            used += 4 + (size_t)length;
        }
        if (write(fd, buffer, used) != (ssize_t)used) {
            perror("write");
            return 1;
        }
        if (fdatasync(fd) != 0) {
            perror("fdatasync");
            return 1;
        }
    }
    double seconds = cpu_seconds() - start;
    printf("%.2f\n", seconds * 1e6 / count);
    close(fd);
    free(buffer);
    return 0;
}
