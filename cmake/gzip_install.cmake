# Run by `cmake --install` (and so by cpack) for each file heed_install_gzipped() names: writes it
# as DESTDIR/PREFIX/<destination>/<name>.gz, compressed as Debian wants man pages and changelogs
# (gzip -9n: best compression, no name or timestamp inside). With heed_gzip_cite_docs, every
# citation of docs/PATH.md (PATH: NAME, or a folder and NAME, as studies/NAME) becomes the path
# the docs are installed at, PREFIX/share/doc/heed/docs/PATH.md, where the reader of an installed
# man page finds it.
# In: heed_gzip_file, heed_gzip_destination, heed_gzip_cite_docs.
get_filename_component(name "${heed_gzip_file}" NAME)
set(dir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${heed_gzip_destination}")
message(STATUS "Installing: ${dir}/${name}.gz")
file(READ "${heed_gzip_file}" text)
if(heed_gzip_cite_docs)
  # docs/NAME.md or docs/DIR/NAME.md alone, or in roff's font changes (\fIdocs/NAME.md\fR);
  # not a/docs/NAME.md.
  string(REGEX REPLACE "(^|[^/A-Za-z0-9_.-]|\\\\f[BIRP])docs/(([A-Za-z0-9_-]+/)?[A-Za-z0-9_-]+\\.md)"
         "\\1${CMAKE_INSTALL_PREFIX}/share/doc/heed/docs/\\2" text "${text}")
endif()
file(MAKE_DIRECTORY "${dir}")
file(WRITE "${dir}/${name}" "${text}")
if(NOT CMAKE_VERSION VERSION_LESS 3.19)  # 0644 whatever the umask (gzip keeps the mode)
  file(CHMOD "${dir}/${name}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endif()
execute_process(COMMAND gzip -9nf "${dir}/${name}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "gzip -9nf ${dir}/${name} failed: ${status}")
endif()
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${dir}/${name}.gz")
