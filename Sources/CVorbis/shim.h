#ifndef JUKEBOX_CVORBIS_SHIM_H
#define JUKEBOX_CVORBIS_SHIM_H
#include <vorbis/vorbisfile.h>
#endif
