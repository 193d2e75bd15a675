package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractTransitionCompatibilityTest;

class MariaDbEmbeddedTransitionCompatibilityTest extends AbstractTransitionCompatibilityTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mariadbEmbedded();
    }
}
