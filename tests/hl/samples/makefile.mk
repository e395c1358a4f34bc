# Makefile sample
CC ?= cc
CFLAGS := -O2 -Wall $(EXTRA)
SRC = $(wildcard src/*.c)
OBJ = $(SRC:.c=.o)

.PHONY: all clean

all: sheaf

sheaf: $(OBJ)
	$(CC) $(CFLAGS) -o $@ $^ -lm

%.o: %.c include/%.h
	@echo "CC $<"
	$(CC) $(CFLAGS) -c $< -o $@

ifeq ($(DEBUG),1)
CFLAGS += -g
endif

clean:
	rm -f $(OBJ) sheaf
