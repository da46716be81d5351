"""Running a test file's unittest cases as a script, the way CTest calls them:
the run fails unless at least `min_tests` tests ran -- an empty discovery, a
renamed class or a deleted test is a failure, never a pass."""

import sys
import unittest


def run(cases, min_tests):
    suite = unittest.TestSuite()
    for case in cases:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    print("%d tests ran (at least %d expected)" % (result.testsRun, min_tests))
    if result.testsRun < min_tests:
        print("FAIL: fewer tests ran than this file defines")
        sys.exit(1)
    sys.exit(0 if result.wasSuccessful() else 1)
