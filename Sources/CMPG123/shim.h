#ifndef JUKEBOX_CMPG123_SHIM_H
#define JUKEBOX_CMPG123_SHIM_H
#include <stdint.h>
#include <sys/types.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <mpg123.h>

/* libmpg123 1.31 (Debian 12) declares its offset API with off_t, whose width and symbol
   name depend on _FILE_OFFSET_BITS on 32-bit ARM (mpg123.h renames the calls with macros
   that Swift cannot see). These wrappers give Swift one int64_t signature everywhere. */
static inline int64_t jb_mpg123_length(mpg123_handle *h) { return (int64_t)mpg123_length(h); }
static inline int64_t jb_mpg123_tell(mpg123_handle *h) { return (int64_t)mpg123_tell(h); }
static inline int jb_mpg123_scan(mpg123_handle *h) { return mpg123_scan(h); }
static inline int64_t jb_mpg123_seek(mpg123_handle *h, int64_t frame, int whence) {
    return (int64_t)mpg123_seek(h, (off_t)frame, whence);
}
static inline int jb_mpg123_set_filesize(mpg123_handle *h, int64_t size) {
    return mpg123_set_filesize(h, (off_t)size);
}
/* mpg123.h renames mpg123_param to mpg123_param2 with a macro, which Swift does not see. */
static inline int jb_mpg123_param(mpg123_handle *h, enum mpg123_parms type, long value, double fvalue) {
    return mpg123_param(h, type, value, fvalue);
}

/* Buffered file input for libmpg123. Its own reader asks read(2) for a frame header and then
   for the frame body: two system calls per 26 ms frame, 13,800 for a three-minute file, which
   cost more kernel time than the decoding itself. This one serves those small reads from a
   64 KiB buffer: one read(2) per 64 KiB (or per `chunk` bytes: a probe that reads the start and
   the end of a file wants less). Seeks inside the buffer move in it; others lseek(2).
   The decoder owns it (jb_mpg123_reader_open / _free); libmpg123 gets no cleanup callback. */
typedef struct {
    int fd;
    size_t pos, len;   /* next byte to hand out, bytes in buf */
    size_t chunk;      /* bytes per read(2), at most sizeof buf */
    int64_t end;       /* file offset just past buf */
    unsigned char buf[65536];
} jb_mpg123_reader;

static inline mpg123_ssize_t jb_mpg123_reader_read(void *handle, void *dst, size_t n) {
    jb_mpg123_reader *r = (jb_mpg123_reader *)handle;
    size_t done = 0;
    while (done < n) {
        if (r->pos == r->len) {
            ssize_t got = read(r->fd, r->buf, r->chunk);
            if (got < 0) {
                if (errno == EINTR) continue;
                return done > 0 ? (mpg123_ssize_t)done : -1;
            }
            if (got == 0) break;
            r->pos = 0;
            r->len = (size_t)got;
            r->end += got;
        }
        size_t take = r->len - r->pos < n - done ? r->len - r->pos : n - done;
        memcpy((unsigned char *)dst + done, r->buf + r->pos, take);
        r->pos += take;
        done += take;
    }
    return (mpg123_ssize_t)done;
}

static inline off_t jb_mpg123_reader_lseek(void *handle, off_t offset, int whence) {
    jb_mpg123_reader *r = (jb_mpg123_reader *)handle;
    int64_t current = r->end - (int64_t)(r->len - r->pos);
    int64_t target;
    if (whence == SEEK_CUR) target = current + offset;
    else if (whence == SEEK_SET) target = offset;
    else {
        off_t at = lseek(r->fd, offset, whence);
        r->pos = r->len = 0;
        if (at >= 0) r->end = at;
        return at;
    }
    int64_t start = r->end - (int64_t)r->len;
    if (target >= start && target <= r->end) {
        r->pos = (size_t)(target - start);
        return (off_t)target;
    }
    off_t at = lseek(r->fd, (off_t)target, SEEK_SET);
    if (at < 0) return at;
    r->pos = r->len = 0;
    r->end = at;
    return at;
}

/* Opens `path` read-only, to be read `chunk` bytes at a time (clamped to 512 B … 64 KiB);
   NULL with errno set on failure. */
static inline jb_mpg123_reader *jb_mpg123_reader_open(const char *path, size_t chunk) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    jb_mpg123_reader *r = (jb_mpg123_reader *)malloc(sizeof *r);
    if (r == NULL) {
        int saved = errno;
        close(fd);
        errno = saved;
        return NULL;
    }
    r->fd = fd;
    r->chunk = chunk < 512 ? 512 : chunk > sizeof r->buf ? sizeof r->buf : chunk;
    r->pos = r->len = 0;
    r->end = 0;
    return r;
}

static inline void jb_mpg123_reader_free(jb_mpg123_reader *r) {
    if (r == NULL) return;
    close(r->fd);
    free(r);
}

/* Makes `h` read through `r` (mpg123_replace_reader_handle + mpg123_open_handle). */
static inline int jb_mpg123_open_reader(mpg123_handle *h, jb_mpg123_reader *r) {
    int rc = mpg123_replace_reader_handle(h, jb_mpg123_reader_read, jb_mpg123_reader_lseek, NULL);
    if (rc != MPG123_OK) return rc;
    return mpg123_open_handle(h, r);
}
/* Seek hints: where an MPEG frame starts in the file, noted while it was decoded, so that a
   later open can start reading there (mpg123_set_index) instead of reading every frame
   header from the start up to a resume position. libmpg123's own index cannot serve: it
   stops growing once an index has been set. */

/* Installs an index of two entries, frame 0 (where libmpg123 found it on open) and `frame`
   at `offset`: a seek to or past `frame` starts reading there. */
static inline int jb_mpg123_use_index_entry(mpg123_handle *h, int64_t frame, int64_t offset) {
    off_t *offsets = NULL;
    off_t step = 0;
    size_t fill = 0;
    if (frame <= 0) return MPG123_BAD_INDEX_PAR;
    int rc = mpg123_index(h, &offsets, &step, &fill);
    if (rc != MPG123_OK) return rc;
    if (fill < 1) return MPG123_BAD_INDEX_PAR;
    off_t two[2] = {offsets[0], (off_t)offset};
    return mpg123_set_index(h, two, (off_t)frame, 2);
}

/* The last MPEG frame libmpg123's own frame index knows where to find (0 when none past the
   first). It grows as frames are read, also while a seek walks to its target, until an
   index is set from outside. */
static inline int64_t jb_mpg123_index_reach(mpg123_handle *h) {
    off_t *offsets = NULL;
    off_t step = 0;
    size_t fill = 0;
    if (mpg123_index(h, &offsets, &step, &fill) != MPG123_OK || fill < 1) return 0;
    return (int64_t)(fill - 1) * (int64_t)step;
}

/* Decodes the next MPEG frame (mpg123_decode_frame): its number, and where its header starts
   in the file (mpg123_framepos), with a pointer to its samples in libmpg123's buffer. */
static inline int jb_mpg123_decode_frame(mpg123_handle *h, int64_t *num, int64_t *offset, unsigned char **audio, size_t *bytes) {
    off_t n = 0;
    int rc = mpg123_decode_frame(h, &n, audio, bytes);
    *num = (int64_t)n;
    *offset = (int64_t)mpg123_framepos(h);
    return rc;
}

/* Size of the reader's file, and up to `n` bytes at `offset` (pread, the read position
   unchanged); -1 on error. */
static inline int64_t jb_mpg123_reader_size(jb_mpg123_reader *r) {
    struct stat st;
    return fstat(r->fd, &st) == 0 ? (int64_t)st.st_size : -1;
}
static inline int64_t jb_mpg123_reader_peek(jb_mpg123_reader *r, int64_t offset, void *dst, size_t n) {
    ssize_t got;
    do { got = pread(r->fd, dst, n, (off_t)offset); } while (got < 0 && errno == EINTR);
    return (int64_t)got;
}
#endif
