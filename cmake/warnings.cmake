# heed_warnings: an INTERFACE target linked into every heed target.
add_library(heed_warnings INTERFACE)
target_compile_options(heed_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Wunused
  -Woverloaded-virtual -Wdouble-promotion -Wformat=2)
if(HEED_WERROR)
  target_compile_options(heed_warnings INTERFACE -Werror)
endif()
