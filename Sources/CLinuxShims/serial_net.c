#define _GNU_SOURCE
#include "CLinuxShimsSerialNet.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdlib.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

static speed_t speed_for(int baud) {
    switch (baud) {
    case 1200: return B1200;
    case 2400: return B2400;
    case 4800: return B4800;
    case 9600: return B9600;
    case 19200: return B19200;
    case 38400: return B38400;
    case 57600: return B57600;
    case 115200: return B115200;
    case 230400: return B230400;
    case 460800: return B460800;
    case 921600: return B921600;
    default: return 0;
    }
}

int jb_tty_configure(int fd, int baud) {
    speed_t speed = speed_for(baud);
    if (speed == 0) {
        errno = EINVAL;
        return -1;
    }
    struct termios t;
    if (tcgetattr(fd, &t) < 0) return -1;
    cfmakeraw(&t);
    t.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS | CSIZE);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    if (cfsetispeed(&t, speed) < 0 || cfsetospeed(&t, speed) < 0) return -1;
    if (tcsetattr(fd, TCSANOW, &t) < 0) return -1;
    tcflush(fd, TCIFLUSH);
    return 0;
}

int jb_tcp_listen(const char *address, int port, int backlog) {
    struct sockaddr_storage storage;
    socklen_t length;
    memset(&storage, 0, sizeof storage);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
    if (strcmp(address, "any") == 0 || strcmp(address, "*") == 0) {
        v4->sin_family = AF_INET;
        v4->sin_addr.s_addr = htonl(INADDR_ANY);
        v4->sin_port = htons((uint16_t)port);
        length = sizeof *v4;
    } else if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        length = sizeof *v4;
    } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        length = sizeof *v6;
    } else {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&storage, length) < 0 || listen(fd, backlog) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int jb_unix_listen(const char *path, int backlog) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    if (strlen(path) >= sizeof address.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    address.sun_family = AF_UNIX;
    strcpy(address.sun_path, path);
    struct stat info;
    if (lstat(path, &info) == 0 && S_ISSOCK(info.st_mode)) unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0 || listen(fd, backlog) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int jb_socket_port(int fd) {
    struct sockaddr_storage storage;
    socklen_t length = sizeof storage;
    if (getsockname(fd, (struct sockaddr *)&storage, &length) < 0) return -1;
    if (storage.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&storage)->sin_port);
    if (storage.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&storage)->sin6_port);
    errno = EAFNOSUPPORT;
    return -1;
}

int jb_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

long jb_send(int fd, const void *bytes, unsigned long count) {
    return (long)send(fd, bytes, count, MSG_NOSIGNAL | MSG_DONTWAIT);
}

long jb_unix_datagram_send(const char *path, const void *bytes, unsigned long count) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof address.sun_path) {
        errno = length == 0 ? EINVAL : ENAMETOOLONG;
        return -1;
    }
    address.sun_family = AF_UNIX;
    memcpy(address.sun_path, path, length);
    if (path[0] == '@') address.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    socklen_t size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length);
    long sent = (long)sendto(fd, bytes, count, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&address, size);
    int saved = errno;
    close(fd);
    errno = saved;
    return sent;
}

int jb_open_pty_master(char *name, unsigned long length) {
    int fd = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    if (grantpt(fd) < 0 || unlockpt(fd) < 0 || ptsname_r(fd, name, length) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}
