#ifndef JUKEBOX_COPUS_SHIM_H
#define JUKEBOX_COPUS_SHIM_H
#include <opusfile.h>
#endif
