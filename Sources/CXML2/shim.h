#ifndef JUKEBOX_CXML2_SHIM_H
#define JUKEBOX_CXML2_SHIM_H
/* libxml2's headers only: CLazyLibraries defines the functions the XML wrapper calls and
   opens libxml2.so.2 on first use. Its include folder is /usr/include/libxml2 (xml2-config). */
#include <libxml/xmlreader.h>
#endif
