list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/aer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/agreement.cpp
  ${CMAKE_CURRENT_LIST_DIR}/alignment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/alignment_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/extract.cpp
  ${CMAKE_CURRENT_LIST_DIR}/heatmap.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ibm2.cpp
  ${CMAKE_CURRENT_LIST_DIR}/soft_alignment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/symmetrize.cpp)
