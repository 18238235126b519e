list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/batch_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/line_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/line_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parallel_corpus.cpp
  ${CMAKE_CURRENT_LIST_DIR}/safetensors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream_pipeline.cpp)
