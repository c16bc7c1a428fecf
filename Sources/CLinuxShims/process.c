#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "CLinuxShims.h"

int jb_peer_is_local(int fd) {
    struct sockaddr_storage peer;
    socklen_t length = sizeof peer;
    memset(&peer, 0, sizeof peer);
    if (getpeername(fd, (struct sockaddr *)&peer, &length) != 0) return -1;
    switch (peer.ss_family) {
    case AF_UNIX:
        return 1;
    case AF_INET: {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)&peer;
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    case AF_INET6: {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&peer;
        if (IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr)) return 1;
        /* An IPv4 client of a dual-stack listener: ::ffff:127.x.y.z. */
        return IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr) && v6->sin6_addr.s6_addr[12] == 127;
    }
    default:
        return 0;
    }
}

/* Calls `action` on every descriptor from 3 up that /proc/self/fd lists (the fallback where
   the kernel has no close_range(2), before 5.11). */
static int for_each_descriptor_from_three(void (*action)(int)) {
    DIR *listing = opendir("/proc/self/fd");
    if (listing == NULL) return -1;
    int own = dirfd(listing);
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL) {
        char *end;
        long fd = strtol(entry->d_name, &end, 10);
        if (*end != '\0' || end == entry->d_name || fd < 3 || fd == own) continue;
        action((int)fd);
    }
    closedir(listing);
    return 0;
}

static void mark_close_on_exec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

static void close_descriptor(int fd) { close(fd); }

/* Every descriptor from 3 up gets FD_CLOEXEC: close_range(2) where the kernel has it
   (5.11), else each entry of /proc/self/fd. */
static int mark_descriptors_close_on_exec(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0) return 0;
#endif
    return for_each_descriptor_from_three(mark_close_on_exec);
}

int jb_execute_self_again(char *const arguments[]) {
    if (mark_descriptors_close_on_exec() != 0) return -1;
    execv("/proc/self/exe", arguments);
    return -1;
}

int jb_close_descriptors_from_three(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return 0;
#endif
    return for_each_descriptor_from_three(close_descriptor);
}
