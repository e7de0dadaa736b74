# SPDX-License-Identifier: MIT
"""Run one unittest module for ctest: exit 0 if it passed, 1 if anything
failed, 77 (skip) if every test in it was skipped, printing why."""
import sys
import unittest


def main() -> int:
    name = sys.argv[1]
    suite = unittest.defaultTestLoader.loadTestsFromName(name)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    if not result.wasSuccessful():
        return 1
    # A subtest's skip stands for its test (getattr: _SubTest.test_case).
    skipped = {getattr(t, "test_case", t).id() for t, _ in result.skipped}
    if result.testsRun and len(skipped) == result.testsRun:
        for _, why in result.skipped[:1]:
            print(f"SKIP: {why}")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
