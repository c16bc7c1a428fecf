#ifndef JUKEBOX_CESPEAK_SHIM_H
#define JUKEBOX_CESPEAK_SHIM_H
#include <espeak-ng/speak_lib.h>
#endif
