#ifndef JUKEBOX_CSONIC_SHIM_H
#define JUKEBOX_CSONIC_SHIM_H
#include <sonic.h>
#endif
