list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/batcher_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bpe_dropout_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/moving_average_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/optimizer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_dir_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/signals_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/train_config_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_state_test.cpp)
