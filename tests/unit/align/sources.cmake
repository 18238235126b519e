list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/aer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/agreement_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/alignment_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/alignment_writer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/extract_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/heatmap_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ibm2_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/soft_alignment_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/symmetrize_test.cpp)
