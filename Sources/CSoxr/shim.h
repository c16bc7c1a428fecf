#ifndef JUKEBOX_CSOXR_SHIM_H
#define JUKEBOX_CSOXR_SHIM_H
#include <soxr.h>

/* soxr.h's quality recipes are macros over other macros, which Swift does not import. */
static const unsigned long jb_soxr_hq = SOXR_HQ;
#endif
