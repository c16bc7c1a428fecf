/* A text spoken by libespeak-ng as the daemon's `say` hands it over (Speech's
   SpeechSynthesizer): synchronous mode, plain UTF-8 (espeakCHARS_UTF8, no SSML, no phoneme
   input), its samples collected up to the daemon's limit. Any MPD client or console can send
   the text, so a crash here would be the daemon's. The first byte picks the voice and the
   rate; the rest is the text, taken as the daemon takes it: valid UTF-8 (a Swift String),
   cut at a NUL, at most the 800 Unicode scalars `Announcements` lets through.
   libespeak-ng is Debian's, not built with ASan: a crash or a hang is a finding, an overrun
   inside it only where ASan intercepts (memcpy, strcpy...). */
#include <espeak-ng/speak_lib.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCALARS 800 /* Announcements.maxScalars */
#define MAX_SECONDS 60  /* SpeechSynthesizer.maxSeconds */

static int rate;
static size_t collected;

static int collect(short *wav, int count, espeak_EVENT *events) {
    (void)events;
    if (!wav || count <= 0) return 0;
    collected += (size_t)count;
    return collected >= (size_t)(MAX_SECONDS * rate) ? 1 : 0;
}

/* The length of the valid UTF-8 prefix up to a NUL, or -1 when the text is not valid
   UTF-8 or has more than MAX_SCALARS scalars (the daemon would refuse or repair it). */
static long valid_text(const uint8_t *p, size_t size) {
    size_t i = 0;
    int scalars = 0;
    while (i < size && p[i] != 0) {
        uint8_t b = p[i];
        int extra = b < 0x80 ? 0 : (b & 0xE0) == 0xC0 ? 1 : (b & 0xF0) == 0xE0 ? 2 : (b & 0xF8) == 0xF0 ? 3 : -1;
        if (extra < 0 || i + (size_t)extra >= size) return -1;
        uint32_t scalar = extra == 0 ? b : (uint32_t)(b & (0x3F >> extra));
        for (int k = 1; k <= extra; k++) {
            if ((p[i + k] & 0xC0) != 0x80) return -1;
            scalar = scalar << 6 | (p[i + k] & 0x3F);
        }
        static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
        if (scalar < least[extra] || scalar > 0x10FFFF || (scalar >= 0xD800 && scalar < 0xE000)) return -1;
        if (++scalars > MAX_SCALARS) return -1;
        i += (size_t)extra + 1;
    }
    return (long)i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *voices[] = {"en", "de", "fr", "es", "it", "nl", "cmn", "ru"};
    static int voice = -1;
    if (size < 1) return 0;
    if (!rate) {
        rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, NULL, 0);
        if (rate <= 0) abort(); /* espeak-ng-data missing: nothing can be tested */
        espeak_SetSynthCallback(collect);
    }
    long length = valid_text(data + 1, size - 1);
    if (length < 0) return -1; /* not a text the daemon would hand over: not kept */
    char *text = malloc((size_t)length + 1);
    memcpy(text, data + 1, (size_t)length);
    text[length] = 0;
    int chosen = data[0] & 7;
    if (chosen != voice) {
        if (espeak_SetVoiceByName(voices[chosen]) != EE_OK) abort();
        voice = chosen;
    }
    espeak_SetParameter(espeakRATE, 80 + (data[0] >> 3) * 12, 0); /* 80 to 452 words a minute */
    collected = 0;
    espeak_Synth(text, (size_t)length + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
    free(text);
    return 0;
}
