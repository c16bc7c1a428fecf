#ifndef JUKEBOX_CLINUXSHIMS_SERIALNET_H
#define JUKEBOX_CLINUXSHIMS_SERIALNET_H
/* Serial-line (termios) and socket helpers for the MPD front ends: sockaddr casts and the
   baud-rate constants are awkward from Swift. */

/* Puts a tty in raw mode (cfmakeraw), 8N1, receiver on, modem lines ignored (CLOCAL), reads
   returning as soon as one byte is there (VMIN 1, VTIME 0), at `baud` (a standard rate), and
   drops pending input. 0, or -1 with errno set (EINVAL for a rate termios does not have). */
int jb_tty_configure(int fd, int baud);

/* A non-blocking, close-on-exec TCP socket bound to address:port (IPv4 dotted or IPv6
   literal, "any" or "*" for every IPv4 address) and listening with `backlog`, with
   SO_REUSEADDR. The fd, or -1 with errno set (EINVAL for an address that does not parse). */
int jb_tcp_listen(const char *address, int port, int backlog);

/* A non-blocking, close-on-exec Unix stream socket listening at `path` (a stale socket file
   there is removed first). The fd, or -1 with errno set. */
int jb_unix_listen(const char *path, int backlog);

/* The local port a TCP socket is bound to, or -1 with errno set. */
int jb_socket_port(int fd);

/* accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC; the fd, or -1 with errno set. */
int jb_accept(int fd);

/* send(2) with MSG_NOSIGNAL | MSG_DONTWAIT; bytes sent, or -1 with errno set. */
long jb_send(int fd, const void *bytes, unsigned long count);

/* Sends one datagram to the Unix datagram socket at `path` (a leading '@' names an abstract
   socket, as systemd's $NOTIFY_SOCKET does) from a fresh socket, without blocking or SIGPIPE.
   Bytes sent, or -1 with errno set. */
long jb_unix_datagram_send(const char *path, const void *bytes, unsigned long count);

/* Opens a new pseudo-terminal master (posix_openpt, grantpt, unlockpt), non-blocking, and
   writes the slave's path (ptsname_r) into `name`. The master fd, or -1 with errno set. */
int jb_open_pty_master(char *name, unsigned long length);

#endif
