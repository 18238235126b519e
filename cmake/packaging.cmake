# What a Debian user gets besides the tools and their man pages (tools/CMakeLists.txt) and the
# sample with its demo (CMakeLists.txt): the documentation in share/doc/heed as Debian lays it
# out (copyright, changelog.gz), and the package itself: `cpack -G DEB` in the build directory
# (or share/heed/scripts/package.sh) writes heed_<version>_<arch>.deb. tests/cli/package.sh
# builds it and checks it.
install(FILES README.md LICENSE cmake/debian/copyright DESTINATION share/doc/heed)
heed_install_gzipped(${PROJECT_SOURCE_DIR}/cmake/debian/changelog share/doc/heed)
# The man pages cite these by their installed path (cmake/gzip_install.cmake); docs/studies/, the
# studies' pages, with them (their plots stay in the source tree's experiments/).
install(DIRECTORY docs/ DESTINATION share/doc/heed/docs FILES_MATCHING PATTERN "*.md")

set(HEED_PACKAGE_MAINTAINER "the heed authors <heed@example.org>" CACHE STRING
    "The Maintainer field of the Debian package")
set(CPACK_PACKAGE_NAME heed)
set(CPACK_PACKAGE_VENDOR "the heed authors")
set(CPACK_PACKAGE_CONTACT "${HEED_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "neural machine translation with attention: RNN encoder-decoders on oneDNN")
# The extended description, in lines Debian's width (CPack indents them under the summary).
set(CPACK_PACKAGE_DESCRIPTION
"heed trains recurrent encoder-decoders with any of over a dozen attention
mechanisms (Luong's dot and general, Bahdanau's additive, scaled dot-product,
multi-head and more) on the CPU, translates with them (greedy, beam search,
sampling), reads word alignments from their attention, and scores BLEU and
chrF as sacreBLEU does. The tools are Unix filters: heed-tokenize, heed-train,
heed-translate, heed-align, heed-score, heed-average, heed-bench-attn and
heed-pooling. A Tatoeba English-French sample and a demo that trains on it
are in /usr/share/heed. C++ programs link the library the tools are built on,
heed::core, through its headers and find_package(heed).")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # heed_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # Depends from dpkg-shlibdeps
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
if(HEED_WITH_MPI)
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin")  # mpirun, for data-parallel heed-train
endif()
# Install with DESTDIR and the prefix /usr, so that what the installation writes into files (the
# man pages' citations of the docs) names /usr, not the staging directory.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
    GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_GENERATOR DEB)
include(CPack)
