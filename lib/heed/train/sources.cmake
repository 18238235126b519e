list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/adam.cpp
  ${CMAKE_CURRENT_LIST_DIR}/batcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/leaky_relu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lr_schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/optimizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pooling_task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sgd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/signals.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trainer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/update.cpp)
# The optimizer's square roots vectorise only without errno (adam.cpp).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/adam.cpp PROPERTIES COMPILE_OPTIONS -fno-math-errno)
