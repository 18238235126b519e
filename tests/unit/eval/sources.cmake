list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/bleu_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chrf_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/multi_run_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/student_t_test.cpp)
