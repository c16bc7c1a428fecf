#ifndef JUKEBOX_CMOSQUITTO_SHIM_H
#define JUKEBOX_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
