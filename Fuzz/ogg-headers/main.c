/* An Ogg Vorbis or Opus file's header pages walked by ogg_headers.c (the comment header
   rebuilt without the long entries), then the stream it feeds libvorbisfile/libopusfile read
   through, sought and read again. The first byte picks the codec and the longest entry kept. */
#define _GNU_SOURCE
#include "ogg_headers.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int fd = memfd_create("ogg", MFD_CLOEXEC);
    if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int codec = data[0] & 1 ? JB_OGG_OPUS : JB_OGG_VORBIS;
    uint32_t max_entry = (uint32_t)(data[0] >> 1) * 16;
    jb_ogg_stream *s = jb_ogg_open(path, codec, max_entry);
    if (s) {
        unsigned char buffer[4096];
        for (int pass = 0; pass < 2; pass++) {
            size_t total = 0, got;
            while ((got = jb_ogg_vorbis_read(buffer, 1, sizeof buffer, s)) > 0) total += got;
            if (total > s->prefix_len + s->file_size) abort();
            if (jb_ogg_vorbis_seek(s, (int64_t)(s->prefix_len / 2), SEEK_SET) != 0) break;
            (void)jb_ogg_opus_read(s, buffer, (int)sizeof buffer);
            (void)jb_ogg_opus_seek(s, -7, SEEK_END);
            (void)jb_ogg_opus_tell(s);
            if (jb_ogg_vorbis_seek(s, 0, SEEK_SET) != 0) break;
        }
        jb_ogg_free(s);
    }
    close(fd);
    return 0;
}
