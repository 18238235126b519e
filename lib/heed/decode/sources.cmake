list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_scorer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sampler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/search.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shortlist.cpp
  ${CMAKE_CURRENT_LIST_DIR}/translator.cpp)
