/* The MP4 walk of mp4_audio.c without FFmpeg: the atoms (moov, trak, udta/meta/ilst, covr,
   iTunSMPB), the edit lists, and the shim's own packet reader over the sample tables (stts,
   stsc, stsz/stz2, stco/co64): every packet placed and read, the binary search for a cut
   file's last whole packet and the seek by dts, as jb_mp4_open and jb_mp4_seek do them; and
   the file read through as the demuxer reads it (the hidden atoms patched in). The demuxer
   and the decoder (FFmpeg, fuzzed by OSS-Fuzz) are not run: read_packet only fills the
   packet's fields, so a zeroed AVPacket and AVStream stand in for FFmpeg's. */
#define _GNU_SOURCE
#include "../../Sources/CFFmpeg/mp4_audio.c"

#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    jb_mp4 *m = calloc(1, sizeof *m);
    if (!m) abort();
    m->smpb_delay = m->smpb_padding = m->smpb_frames = -1;
    m->smpb_track = -1;
    m->fd = memfd_create("mp4", MFD_CLOEXEC);
    if (m->fd < 0 || write(m->fd, data, size) != (ssize_t)size) abort();
    m->size = (int64_t)size;
    walk(m, 0, m->size, 0);
    m->patch_count = m->covers;
    const struct track *own = own_track(m);
    if (own && make_reader(m, own)) {
        hide_tables(m, own);
        AVPacket packet = {0};
        AVStream stream = {0};
        m->packet = &packet;
        m->stream = &stream;
        for (int i = 0; i < 4096 && read_packet(m) == 0; i++) {
        }
        int64_t last = last_whole_packet(m);
        if (last >= 0 && last + 1 < m->reader->samples) (void)place_packet(m, last + 1);
        (void)place_packet(m, packet_at(m, m->reader->stts_duration / 2));
        free_reader(m);
    }
    uint8_t buffer[4096];
    for (int i = 0; i < 1024 && io_read(m, buffer, (int)sizeof buffer) > 0; i++) {
    }
    close(m->fd);
    free(m);
    return 0;
}
