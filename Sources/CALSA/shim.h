#ifndef JUKEBOX_CALSA_SHIM_H
#define JUKEBOX_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#endif
