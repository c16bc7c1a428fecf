#ifndef JUKEBOX_CMPG123_SHIM_H
#define JUKEBOX_CMPG123_SHIM_H
#include <stdint.h>
#include <sys/types.h>
#include <mpg123.h>

/* libmpg123 1.31 (Debian 12) declares its offset API with off_t, whose width and symbol
   name depend on _FILE_OFFSET_BITS on 32-bit ARM (mpg123.h renames the calls with macros
   that Swift cannot see). These wrappers give Swift one int64_t signature everywhere. */
static inline int64_t jb_mpg123_length(mpg123_handle *h) { return (int64_t)mpg123_length(h); }
static inline int64_t jb_mpg123_tell(mpg123_handle *h) { return (int64_t)mpg123_tell(h); }
static inline int64_t jb_mpg123_seek(mpg123_handle *h, int64_t frame, int whence) {
    return (int64_t)mpg123_seek(h, (off_t)frame, whence);
}
static inline int jb_mpg123_set_filesize(mpg123_handle *h, int64_t size) {
    return mpg123_set_filesize(h, (off_t)size);
}
/* mpg123_open is renamed by a macro on large-file 32-bit builds as well; keep it beside the
   other offset calls so the handle and the seek calls always agree on the off_t width. */
static inline int jb_mpg123_open(mpg123_handle *h, const char *path) { return mpg123_open(h, path); }
/* mpg123.h renames mpg123_param to mpg123_param2 with a macro, which Swift does not see. */
static inline int jb_mpg123_param(mpg123_handle *h, enum mpg123_parms type, long value, double fvalue) {
    return mpg123_param(h, type, value, fvalue);
}
#endif
