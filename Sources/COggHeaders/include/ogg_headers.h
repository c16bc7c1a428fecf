#ifndef JUKEBOX_OGG_HEADERS_H
#define JUKEBOX_OGG_HEADERS_H
#include <stddef.h>
#include <stdint.h>

/* An Ogg Vorbis or Opus file as libvorbisfile and libopusfile are to read it. Both libraries
   read a link's whole comment header into memory, and a cover in it (METADATA_BLOCK_PICTURE,
   5 MB of JPEG is 7 MB of base64) costs 7 MB of reading and 14 MB resident while the file is
   open. So the first link's header pages are walked here (page headers only; comment entries
   longer than a limit are skipped by offset, never read), and when an entry was skipped the
   libraries are fed rebuilt header pages without it, followed by the file from its first
   audio page. The rebuilt pages are as many as the original ones (empty pages pad them), so
   the audio pages' sequence numbers still follow. Otherwise the file is fed as it is. */
typedef struct {
    int fd;
    unsigned char *prefix;  /* the rebuilt header pages, or NULL */
    uint64_t prefix_len;
    uint64_t data_offset;   /* file offset the stream continues from after the prefix */
    uint64_t file_size;
    uint64_t pos;           /* position in the stream fed to the library */
    uint32_t skipped;       /* comment entries left out */
    int sequential;         /* a pipe (a web radio stream): read as it comes, never seeked */
} jb_ogg_stream;

enum { JB_OGG_VORBIS = 1, JB_OGG_OPUS = 2 };

/* Opens `path` (NULL and errno on failure). `max_entry`: the longest comment entry kept.
   A pipe is fed as it comes (no header walk; seeks fail, so the libraries read it as an
   unseekable stream). */
jb_ogg_stream *jb_ogg_open(const char *path, int codec, uint32_t max_entry);
void jb_ogg_free(jb_ogg_stream *s);

/* libvorbisfile's callbacks (ov_callbacks; no close: the stream is freed by its owner). */
size_t jb_ogg_vorbis_read(void *ptr, size_t size, size_t nmemb, void *stream);
int jb_ogg_vorbis_seek(void *stream, int64_t offset, int whence);
long jb_ogg_vorbis_tell(void *stream);

/* libopusfile's callbacks (OpusFileCallbacks; no close). */
int jb_ogg_opus_read(void *stream, unsigned char *ptr, int nbytes);
int jb_ogg_opus_seek(void *stream, int64_t offset, int whence);
int64_t jb_ogg_opus_tell(void *stream);
#endif
