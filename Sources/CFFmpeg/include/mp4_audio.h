#ifndef JUKEBOX_MP4_AUDIO_H
#define JUKEBOX_MP4_AUDIO_H
#include <stddef.h>
#include <stdint.h>

/* AAC and ALAC in MP4 (.m4a, .m4b, .mp4) through FFmpeg's libavformat and libavcodec.

   FFmpeg is not linked: a box that plays only MP3 must not pay for it. CLazyLibraries opens
   it on first use, the minimal build when there is one (jb_lazy_minimal_ffmpeg_dir), else
   Debian's (whose libavcodec needs 130 shared libraries: 25 MB resident and 55 ms to load), by
   the sonames of the headers this was compiled against (so the ABI is the one the structs
   were laid out for), and defines the FFmpeg functions called here.

   The FFmpeg types stay in mp4_audio.c: Swift sees this handful of functions only. A handle
   is used by one thread at a time; handles on different threads are independent. */

/* Loads FFmpeg if it is not loaded yet (thread-safe). Returns NULL when it is loaded, else the
   reason (dlopen's text), the same on every later call. */
const char *jb_mp4_load(void);

typedef struct jb_mp4 jb_mp4;

enum { JB_MP4_AAC = 1, JB_MP4_ALAC = 2 };

typedef struct {
    int codec;           /* JB_MP4_AAC or JB_MP4_ALAC */
    int rate;
    int channels;
    int bits;            /* ALAC: the source's bit depth (16, 20, 24, 32); AAC: 0 (float) */
    int64_t frames;      /* the exact length after the encoder delay and padding are removed */
    int64_t delay;       /* iTunSMPB's encoder delay (priming), -1 without iTunSMPB */
    int64_t padding;     /* iTunSMPB's end padding, -1 without iTunSMPB */
    int64_t edit_start;  /* the edit list's media time in samples (the priming), -1 without one */
    int covers_skipped;  /* 'covr' atoms hidden from the demuxer (never read) */
    int own_packets;     /* the shim reads the packets through the sample tables itself (below) */
    uint64_t channel_mask; /* the channels' positions (AV_CH_*, WAVE's bits), in bit order; 0 when unknown */
} jb_mp4_info;

/* Opens `path` with the MP4 demuxer (no probing: an MP3 named .m4a is refused), or a pipe
   (a web radio station) with the ADTS AAC one, read as it comes (no seeks, no length), and the
   decoder of its first AAC or ALAC stream, and decodes its first frame. On failure returns
   an AVERROR code (< 0), `*out` is NULL, `call` names the failing step and `message` holds
   FFmpeg's text (av_strerror, and the last error FFmpeg logged for this thread).

   In the usual layout (one sample description, at most one plain edit, no fragments) the shim
   reads the audio's packets itself, through the sample tables in the file, a window at a time,
   instead of the demuxer's index (24 bytes a packet: 37 MB for a 10-hour audiobook); the
   demuxer still gives the codec's parameters, the tags and the chapters. JB_MP4_DEMUXER_PACKETS
   in `flags` leaves the packets to the demuxer always (to compare the two). */
enum { JB_MP4_DEMUXER_PACKETS = 1 };
int jb_mp4_open(const char *path, int flags, jb_mp4 **out, const char **call, char *message, size_t message_len);
void jb_mp4_close(jb_mp4 *m);
void jb_mp4_get_info(const jb_mp4 *m, jb_mp4_info *info);

/* Decodes up to `capacity` frames of interleaved samples into `out`: int16_t when `s32` is
   0, int32_t (full scale; 24-bit ALAC in the top 24 bits) otherwise. Returns the frames
   written, 0 at the end, or an AVERROR code with `call` and `message` as for open. */
int jb_mp4_read(jb_mp4 *m, void *out, int capacity, int s32, const char **call, char *message, size_t message_len);

/* Seeks so that the next read starts with output frame `frame` exactly (the decoder starts
   a little earlier and the frames before `frame` are dropped). */
int jb_mp4_seek(jb_mp4 *m, int64_t frame, const char **call, char *message, size_t message_len);

/* The output frame the next read returns first. */
int64_t jb_mp4_position(const jb_mp4 *m);

/* The container's tags under FFmpeg's names (title, artist, album_artist, album, track,
   disc, date, genre, composer, lyrics, and freeform ones such as "MusicBrainz Track Id"),
   in the file's order. The strings belong to the handle. */
int jb_mp4_tag_count(const jb_mp4 *m);
void jb_mp4_tag(const jb_mp4 *m, int index, const char **key, const char **value);

/* The audio stream's own tags (language, handler_name, vendor_id), in FFmpeg's order. */
int jb_mp4_stream_tag_count(const jb_mp4 *m);
void jb_mp4_stream_tag(const jb_mp4 *m, int index, const char **key, const char **value);

/* Chapters (Nero 'chpl' or a QuickTime chapter track): title and start in output frames. */
int jb_mp4_chapter_count(const jb_mp4 *m);
void jb_mp4_chapter(const jb_mp4 *m, int index, const char **title, int64_t *start);
#endif
