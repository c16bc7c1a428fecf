#ifndef JUKEBOX_CGPIOD_SHIM_H
#define JUKEBOX_CGPIOD_SHIM_H
#include <gpiod.h>
#endif
