list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/unicode_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/input_check_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/roundtrip_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bpe_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bpe_learner_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vocab_test.cpp)
