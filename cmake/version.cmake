# Writes OUT from IN (heed/common/version.h.in) with the source tree's commit, at every build, not
# only when CMake configures: a build after `git pull` or a commit would otherwise name the commit
# of its configuration (seen: binaries of 32a8bcd saying b0107ec). A tree whose lib/ or tools/
# differ from that commit gets "+" after it. configure_file leaves OUT untouched when nothing
# changed, so an unchanged commit rebuilds nothing.
#   cmake -DSOURCE_DIR=... -DIN=... -DOUT=... -DPROJECT_VERSION=... -P cmake/version.cmake
set(HEED_GIT_HASH "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD
                  WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE HEED_GIT_HASH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(HEED_GIT_HASH)
    execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD -- lib tools
                    WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE modified ERROR_QUIET)
    if(NOT modified EQUAL 0)
      string(APPEND HEED_GIT_HASH "+")
    endif()
  endif()
endif()
configure_file(${IN} ${OUT})
