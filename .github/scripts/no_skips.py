"""Fails when any surefire report of the given modules counts a skipped test, or when there is no report at all:
in the Docker CI a skip means a server did not run, which must never pass as green. The one skip allowed is a
suite's deliberate restriction to one server (RunsOn: "<suite> runs on [<server>] only, not on <server>"), which
says so in its message."""
import glob
import re
import sys
import xml.etree.ElementTree as ET

RESTRICTED = re.compile(r" runs on \[[^\]]*\] only, not on ")

total = skipped = restricted = 0
for module in sys.argv[1:]:
    for path in glob.glob(module + "/target/surefire-reports/TEST-*.xml"):
        for case in ET.parse(path).getroot().iter("testcase"):
            total += 1
            skip = case.find("skipped")
            if skip is None:
                continue
            text = (skip.get("message") or "") + (skip.text or "")
            if RESTRICTED.search(text):
                restricted += 1
                continue
            skipped += 1
            print("skipped: %s.%s: %s" % (case.get("classname"), case.get("name"), text.strip()[:300]))
print("%d tests, %d skipped, %d restricted to one server by RunsOn" % (total, skipped, restricted))
sys.exit(1 if skipped or total == 0 else 0)
