#define OV_EXCLUDE_STATIC_CALLBACKS
/* opusfile.h gives its declarations default visibility by a pragma under this test; the
   definitions here must stay hidden, so that the loaded libraries' own calls never bind to
   them. */
#define OP_GNUC_PREREQ(major, minor) 0
#include "lazy_libraries.h"

#include <FLAC/metadata.h>
#include <libxml/xmlreader.h>
#include <FLAC/stream_decoder.h>
#include <dlfcn.h>
#include <espeak-ng/speak_lib.h>
#include <ogg/ogg.h>
#include <opusfile.h>
#include <pthread.h>
#include <sonic.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vorbis/vorbisfile.h>

/* Debian 12's sonames (libflac12, libogg0, libvorbisfile3, libopusfile0, libsoxr0, libsonic0, libxml2,
   libespeak-ng1). A test
   checks them against the -dev packages' links, so a distribution that moves on fails there. */
static const char *const sonames[JB_LIB_COUNT] = {
    "libFLAC.so.12", "libogg.so.0", "libvorbisfile.so.3", "libopusfile.so.0", "libsoxr.so.0",
    "libsonic.so.0", "libxml2.so.2", "libespeak-ng.so.1"};
static void *handles[JB_LIB_COUNT];
static const char *failures[JB_LIB_COUNT];
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

const char *jb_lazy_soname(int library) { return sonames[library]; }

const char *jb_lazy_load(int library) {
    if (__atomic_load_n(&handles[library], __ATOMIC_ACQUIRE) != NULL) return NULL;
    pthread_mutex_lock(&loading);
    const char *failure = NULL;
    if (handles[library] == NULL) {
        void *handle = dlopen(sonames[library], RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            /* dlerror's text lives until the next dl call: keep a copy (once per library). */
            if (failures[library] == NULL) {
                const char *text = dlerror();
                failures[library] = strdup(text != NULL ? text : sonames[library]);
            }
            failure = failures[library];
        } else {
            __atomic_store_n(&handles[library], handle, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&loading);
    return failure;
}

/* A symbol of a loaded library. A missing one means a library that does not match its
   soname's ABI: no way on, so say which and stop. */
static void *symbol(int library, const char *name) {
    if (jb_lazy_load(library) != NULL) {
        fprintf(stderr, "jukeboxd: %s used before it was loaded\n", sonames[library]);
        abort();
    }
    void *found = dlsym(handles[library], name);
    if (found == NULL) {
        fprintf(stderr, "jukeboxd: %s has no %s\n", sonames[library], name);
        abort();
    }
    return found;
}

/* Defines `name` with its header's prototype: the first call looks the real one up. */
#define LAZY(library, ret, name, params, args)                                              \
    __attribute__((visibility("hidden"))) ret name params {                                 \
        static void *real;                                                                  \
        void *fn = __atomic_load_n(&real, __ATOMIC_ACQUIRE);                                \
        if (fn == NULL) {                                                                   \
            fn = symbol(library, #name);                                                    \
            __atomic_store_n(&real, fn, __ATOMIC_RELEASE);                                  \
        }                                                                                   \
        return ((__typeof__(&name))fn) args;                                                \
    }

#define F JB_LIB_FLAC
LAZY(F, FLAC__StreamDecoder *, FLAC__stream_decoder_new, (void), ())
LAZY(F, void, FLAC__stream_decoder_delete, (FLAC__StreamDecoder * d), (d))
LAZY(F, FLAC__bool, FLAC__stream_decoder_finish, (FLAC__StreamDecoder * d), (d))
LAZY(F, FLAC__bool, FLAC__stream_decoder_flush, (FLAC__StreamDecoder * d), (d))
LAZY(F, FLAC__StreamDecoderState, FLAC__stream_decoder_get_state, (const FLAC__StreamDecoder *d), (d))
LAZY(F, const char *, FLAC__stream_decoder_get_resolved_state_string, (const FLAC__StreamDecoder *d), (d))
LAZY(F, FLAC__bool, FLAC__stream_decoder_process_single, (FLAC__StreamDecoder * d), (d))
LAZY(F, FLAC__bool, FLAC__stream_decoder_seek_absolute, (FLAC__StreamDecoder * d, FLAC__uint64 s), (d, s))
LAZY(F, FLAC__StreamDecoderInitStatus, FLAC__stream_decoder_init_stream,
     (FLAC__StreamDecoder * d, FLAC__StreamDecoderReadCallback r, FLAC__StreamDecoderSeekCallback s,
      FLAC__StreamDecoderTellCallback t, FLAC__StreamDecoderLengthCallback l, FLAC__StreamDecoderEofCallback e,
      FLAC__StreamDecoderWriteCallback w, FLAC__StreamDecoderMetadataCallback m, FLAC__StreamDecoderErrorCallback x,
      void *c),
     (d, r, s, t, l, e, w, m, x, c))
LAZY(F, FLAC__Metadata_SimpleIterator *, FLAC__metadata_simple_iterator_new, (void), ())
LAZY(F, void, FLAC__metadata_simple_iterator_delete, (FLAC__Metadata_SimpleIterator * i), (i))
LAZY(F, FLAC__bool, FLAC__metadata_simple_iterator_init,
     (FLAC__Metadata_SimpleIterator * i, const char *f, FLAC__bool r, FLAC__bool p), (i, f, r, p))
LAZY(F, FLAC__Metadata_SimpleIteratorStatus, FLAC__metadata_simple_iterator_status,
     (FLAC__Metadata_SimpleIterator * i), (i))
LAZY(F, FLAC__bool, FLAC__metadata_simple_iterator_is_last, (const FLAC__Metadata_SimpleIterator *i), (i))
LAZY(F, FLAC__bool, FLAC__metadata_simple_iterator_next, (FLAC__Metadata_SimpleIterator * i), (i))
LAZY(F, off_t, FLAC__metadata_simple_iterator_get_block_offset, (const FLAC__Metadata_SimpleIterator *i), (i))
LAZY(F, FLAC__MetadataType, FLAC__metadata_simple_iterator_get_block_type,
     (const FLAC__Metadata_SimpleIterator *i), (i))
LAZY(F, unsigned, FLAC__metadata_simple_iterator_get_block_length, (const FLAC__Metadata_SimpleIterator *i), (i))
LAZY(F, FLAC__StreamMetadata *, FLAC__metadata_simple_iterator_get_block, (FLAC__Metadata_SimpleIterator * i), (i))
LAZY(F, void, FLAC__metadata_object_delete, (FLAC__StreamMetadata * o), (o))

const char *jb_flac_error_status_string(int status) {
    return ((const char *const *)symbol(F, "FLAC__StreamDecoderErrorStatusString"))[status];
}
const char *jb_flac_init_status_string(int status) {
    return ((const char *const *)symbol(F, "FLAC__StreamDecoderInitStatusString"))[status];
}
const char *jb_flac_iterator_status_string(int status) {
    return ((const char *const *)symbol(F, "FLAC__Metadata_SimpleIteratorStatusString"))[status];
}
#undef F

#define G JB_LIB_OGG
LAZY(G, int, ogg_stream_init, (ogg_stream_state * s, int serial), (s, serial))
LAZY(G, int, ogg_stream_clear, (ogg_stream_state * s), (s))
LAZY(G, int, ogg_stream_packetin, (ogg_stream_state * s, ogg_packet *p), (s, p))
LAZY(G, int, ogg_stream_flush, (ogg_stream_state * s, ogg_page *p), (s, p))
LAZY(G, void, ogg_page_checksum_set, (ogg_page * p), (p))
#undef G

#define V JB_LIB_VORBISFILE
LAZY(V, int, ov_open_callbacks,
     (void *s, OggVorbis_File *vf, const char *initial, long ibytes, ov_callbacks callbacks),
     (s, vf, initial, ibytes, callbacks))
LAZY(V, int, ov_clear, (OggVorbis_File * vf), (vf))
LAZY(V, long, ov_streams, (OggVorbis_File * vf), (vf))
LAZY(V, ogg_int64_t, ov_pcm_total, (OggVorbis_File * vf, int i), (vf, i))
LAZY(V, vorbis_info *, ov_info, (OggVorbis_File * vf, int link), (vf, link))
LAZY(V, vorbis_comment *, ov_comment, (OggVorbis_File * vf, int link), (vf, link))
LAZY(V, long, ov_read,
     (OggVorbis_File * vf, char *buffer, int length, int bigendianp, int word, int sgned, int *bitstream),
     (vf, buffer, length, bigendianp, word, sgned, bitstream))
LAZY(V, long, ov_read_float, (OggVorbis_File * vf, float ***pcm, int samples, int *bitstream),
     (vf, pcm, samples, bitstream))
LAZY(V, int, ov_pcm_seek, (OggVorbis_File * vf, ogg_int64_t pos), (vf, pos))
LAZY(V, ogg_int64_t, ov_pcm_tell, (OggVorbis_File * vf), (vf))
LAZY(V, long, ov_serialnumber, (OggVorbis_File * vf, int i), (vf, i))
#undef V

#define O JB_LIB_OPUSFILE
LAZY(O, OggOpusFile *, op_open_callbacks,
     (void *s, const OpusFileCallbacks *cb, const unsigned char *initial, size_t ibytes, int *error),
     (s, cb, initial, ibytes, error))
LAZY(O, void, op_free, (OggOpusFile * of), (of))
LAZY(O, ogg_int64_t, op_pcm_total, (const OggOpusFile *of, int li), (of, li))
LAZY(O, const OpusHead *, op_head, (const OggOpusFile *of, int li), (of, li))
LAZY(O, const OpusTags *, op_tags, (const OggOpusFile *of, int li), (of, li))
LAZY(O, int, op_channel_count, (const OggOpusFile *of, int li), (of, li))
LAZY(O, void, op_set_dither_enabled, (OggOpusFile * of, int enabled), (of, enabled))
LAZY(O, int, op_read, (OggOpusFile * of, opus_int16 *pcm, int size, int *li), (of, pcm, size, li))
LAZY(O, int, op_read_float, (OggOpusFile * of, float *pcm, int size, int *li), (of, pcm, size, li))
LAZY(O, int, op_pcm_seek, (OggOpusFile * of, ogg_int64_t offset), (of, offset))
LAZY(O, ogg_int64_t, op_pcm_tell, (const OggOpusFile *of), (of))
LAZY(O, opus_uint32, op_serialno, (const OggOpusFile *of, int li), (of, li))
LAZY(O, int, opus_tags_get_track_gain, (const OpusTags *tags, int *gain), (tags, gain))
LAZY(O, int, opus_tags_get_album_gain, (const OpusTags *tags, int *gain), (tags, gain))
#undef O

#define S JB_LIB_SOXR
LAZY(S, soxr_t, soxr_create,
     (double input_rate, double output_rate, unsigned num_channels, soxr_error_t *error,
      soxr_io_spec_t const *io, soxr_quality_spec_t const *quality, soxr_runtime_spec_t const *runtime),
     (input_rate, output_rate, num_channels, error, io, quality, runtime))
LAZY(S, soxr_error_t, soxr_process,
     (soxr_t resampler, soxr_in_t in, size_t ilen, size_t *idone, soxr_out_t out, size_t olen, size_t *odone),
     (resampler, in, ilen, idone, out, olen, odone))
LAZY(S, soxr_error_t, soxr_clear, (soxr_t resampler), (resampler))
LAZY(S, void, soxr_delete, (soxr_t resampler), (resampler))
LAZY(S, soxr_io_spec_t, soxr_io_spec, (soxr_datatype_t itype, soxr_datatype_t otype), (itype, otype))
LAZY(S, soxr_quality_spec_t, soxr_quality_spec, (unsigned long recipe, unsigned long flags), (recipe, flags))
#undef S

#define SN JB_LIB_SONIC
LAZY(SN, sonicStream, sonicCreateStream, (int sampleRate, int numChannels), (sampleRate, numChannels))
LAZY(SN, void, sonicDestroyStream, (sonicStream stream), (stream))
LAZY(SN, void, sonicSetSpeed, (sonicStream stream, float speed), (stream, speed))
LAZY(SN, int, sonicWriteShortToStream, (sonicStream stream, short *samples, int numSamples),
     (stream, samples, numSamples))
LAZY(SN, int, sonicReadShortFromStream, (sonicStream stream, short *samples, int maxSamples),
     (stream, samples, maxSamples))
LAZY(SN, int, sonicFlushStream, (sonicStream stream), (stream))
#undef SN
#define X JB_LIB_XML2
LAZY(X, xmlTextReaderPtr, xmlReaderForFile, (const char *filename, const char *encoding, int options),
     (filename, encoding, options))
LAZY(X, void, xmlFreeTextReader, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderRead, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderNodeType, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderIsEmptyElement, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderMoveToNextAttribute, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderMoveToElement, (xmlTextReaderPtr reader), (reader))
LAZY(X, const xmlChar *, xmlTextReaderConstLocalName, (xmlTextReaderPtr reader), (reader))
LAZY(X, const xmlChar *, xmlTextReaderConstNamespaceUri, (xmlTextReaderPtr reader), (reader))
LAZY(X, const xmlChar *, xmlTextReaderConstValue, (xmlTextReaderPtr reader), (reader))
LAZY(X, void, xmlTextReaderSetStructuredErrorHandler, (xmlTextReaderPtr reader, xmlStructuredErrorFunc f, void *arg),
     (reader, f, arg))
#undef X

#define E JB_LIB_ESPEAK
LAZY(E, int, espeak_Initialize, (espeak_AUDIO_OUTPUT output, int buflength, const char *path, int options),
     (output, buflength, path, options))
LAZY(E, void, espeak_SetSynthCallback, (t_espeak_callback * callback), (callback))
LAZY(E, espeak_ERROR, espeak_SetVoiceByName, (const char *name), (name))
LAZY(E, espeak_ERROR, espeak_SetParameter, (espeak_PARAMETER parameter, int value, int relative),
     (parameter, value, relative))
LAZY(E, espeak_ERROR, espeak_Synth,
     (const void *text, size_t size, unsigned int position, espeak_POSITION_TYPE position_type,
      unsigned int end_position, unsigned int flags, unsigned int *unique_identifier, void *user_data),
     (text, size, position, position_type, end_position, flags, unique_identifier, user_data))
LAZY(E, espeak_ERROR, espeak_Synchronize, (void), ())
#undef E
