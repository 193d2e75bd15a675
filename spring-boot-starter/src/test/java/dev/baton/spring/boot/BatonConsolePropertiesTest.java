package dev.baton.spring.boot;

import java.util.List;

/** The console's settings through the Boot 4 starter, in Tomcat, without Spring Security's auto-configuration. */
class BatonConsolePropertiesTest extends AbstractBatonConsolePropertiesTest {
    @Override
    protected List<String> moreProperties() {
        return List.of("spring.autoconfigure.exclude="
                + String.join(",", BatonConsoleAutoConfigurationTest.NO_SPRING_SECURITY));
    }
}
