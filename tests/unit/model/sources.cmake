list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/average_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/batch_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_file_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/seq2seq_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tokenizer_record_test.cpp)
