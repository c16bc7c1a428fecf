#ifndef JUKEBOX_CVORBIS_SHIM_H
#define JUKEBOX_CVORBIS_SHIM_H
#include <stdio.h>
#include <vorbis/vorbisfile.h>

/* Opens `path` into `vf` through ov_open_callbacks over a FILE of our own, so that a file
   that cannot be opened (1, errno set) is told apart from one that is not Vorbis (the
   library's negative code); ov_fopen returns -1 for both. Once the open succeeded, ov_clear
   closes the FILE; before that it is ours to close. */
static inline int jb_ov_open(const char *path, OggVorbis_File *vf) {
    FILE *f = fopen(path, "rbe");
    if (f == NULL) return 1;
    int rc = ov_open_callbacks(f, vf, NULL, 0, OV_CALLBACKS_DEFAULT);
    if (rc != 0) fclose(f);
    return rc;
}
#endif
