package dev.baton.mysql;

import dev.baton.testkit.TestDatabase;
import dev.baton.testkit.TestDatabases;
import dev.baton.testkit.compat.AbstractTransitionModelTest;

class MariaDbLocalTransitionModelTest extends AbstractTransitionModelTest {
    @Override
    protected TestDatabase database() {
        return TestDatabases.mariadbLocal();
    }
}
