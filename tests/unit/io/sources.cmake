list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/batch_reader_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/line_io_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parallel_corpus_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/safetensors_test.cpp)
