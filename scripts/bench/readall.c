/* readall: the floor for `ccmem audit` — list a memory folder recursively, as the audit does
 * (hidden entries skipped, files named *.md), and read every byte of every file once.
 * Prints the file and byte counts and a checksum so no read can be optimized away.
 * Built by scripts/bench/audit.sh: cc -O2 -o target/bench/readall scripts/bench/readall.c */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long files, bytes, sum;
static char buf[1 << 16];

static int is_md(const char *name) {
    size_t n = strlen(name);
    return n >= 3 && strcmp(name + n - 3, ".md") == 0;
}

static void walk(int dirfd, int depth) {
    DIR *d = fdopendir(dirfd);
    if (!d) { close(dirfd); return; }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (e->d_type == DT_DIR) {
            if (depth >= 8) continue;
            int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY);
            if (sub >= 0) walk(sub, depth + 1);
        } else if (is_md(e->d_name)) {
            int fd = openat(dirfd, e->d_name, O_RDONLY | O_NONBLOCK);
            if (fd < 0) continue;
            ssize_t n;
            while ((n = read(fd, buf, sizeof buf)) > 0) {
                bytes += (unsigned long)n;
                for (ssize_t i = 0; i < n; i += 64) sum += (unsigned char)buf[i];
            }
            close(fd);
            files++;
        }
    }
    closedir(d);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: readall DIR\n"); return 2; }
    int fd = open(argv[1], O_RDONLY | O_DIRECTORY);
    if (fd < 0) { perror(argv[1]); return 2; }
    walk(fd, 0);
    printf("%lu files, %lu bytes, checksum %lu\n", files, bytes, sum);
    return 0;
}
