#ifndef JUKEBOX_COPUS_SHIM_H
#define JUKEBOX_COPUS_SHIM_H
#include <opusfile.h>

/* Opens `path` through op_fopen + op_open_callbacks, so that a file that cannot be opened
   (*error = 1, errno set) is told apart from one that is not Opus (the library's negative
   code); op_open_file reports OP_EFAULT for both. libopusfile owns the stream once the open
   succeeded (op_free closes it); before that it is ours to close. */
static inline OggOpusFile *jb_op_open(const char *path, int *error) {
    OpusFileCallbacks cb;
    void *stream = op_fopen(&cb, path, "rb");
    if (stream == NULL) {
        *error = 1;
        return NULL;
    }
    OggOpusFile *of = op_open_callbacks(stream, &cb, NULL, 0, error);
    if (of == NULL) cb.close(stream);
    return of;
}
#endif
