# Two commands on a fresh Debian machine: `make run` and `make test` (see README.md).
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: run build release test bench clean

run: release
	./.build/release/ofj $(ARGS)

build:
	@tools/deps.sh
	$(SWIFT) build

# The Swift runtime linked statically: start-up is what short commands like `ofj day` spend
# their time on (BENCHMARKS.md measured 24.1 -> 13.4 ms for `ofj day`).
release:
	@tools/deps.sh
	$(SWIFT) build -c release --static-swift-stdlib

test:
	@tools/test

clean:
	rm -rf .build
