# heed_install_gzipped(FILE DESTINATION [CITE_INSTALLED_DOCS]): installs FILE gzipped (-9n) as
# DESTINATION/<name>.gz; with CITE_INSTALLED_DOCS its citations of docs/*.md name the installed
# docs (cmake/gzip_install.cmake). For man pages and the changelog, as Debian installs them.
function(heed_install_gzipped file destination)
  cmake_parse_arguments(PARSE_ARGV 2 arg "CITE_INSTALLED_DOCS" "" "")
  install(CODE "set(heed_gzip_file \"${file}\")
set(heed_gzip_destination \"${destination}\")
set(heed_gzip_cite_docs ${arg_CITE_INSTALLED_DOCS})
include(\"${PROJECT_SOURCE_DIR}/cmake/gzip_install.cmake\")")
endfunction()
