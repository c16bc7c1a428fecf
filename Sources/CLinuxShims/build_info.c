#include "CLinuxShims.h"

/* The commit the binary was built from. Empty in a development build; Board/build-jukeboxd.sh
   writes it into this section after the link (llvm-objcopy --update-section), so the sources
   need no generated file and the binary no build path. Its size is fixed: the section is
   replaced in place. */
__attribute__((used, section(".jukebox_commit"))) const char jb_commit_section[JB_BUILD_COMMIT_SIZE] = "";

const char *jb_build_commit(void) { return jb_commit_section; }
