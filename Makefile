# Two commands on a fresh Debian machine: `make run` and `make test` (see README.md).
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: run build release test bench clean

run: release
	./.build/release/ofj $(ARGS)

build:
	@tools/deps.sh
	$(SWIFT) build

release:
	@tools/deps.sh
	$(SWIFT) build -c release

test:
	@tools/test

clean:
	rm -rf .build
