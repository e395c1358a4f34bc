cmake_minimum_required(VERSION 3.16)
project(sheaf VERSION 0.1.0 LANGUAGES C)

# Options
option(SHEAF_FUZZ "Build the fuzzers" OFF)
set(CMAKE_C_STANDARD 11)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)

if(SHEAF_FUZZ AND NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "needs clang: ${CMAKE_C_COMPILER_ID}")
endif()

foreach(src IN LISTS SOURCES)
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
endforeach()
target_link_libraries(sheaf PRIVATE PkgConfig::PCRE2 m)
