package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;

/**
 * This module's tests run on Spring Boot 3.5 and Spring Framework 6.2, not on the root pom's Spring Framework 7: the
 * shared tests prove nothing about Boot 3.5 otherwise.
 */
class SpringVersionsTest {
    @Test
    void theTestsRunOnSpringBoot35AndSpringFramework62() {
        String boot = SpringBootVersion.getVersion();
        String framework = SpringVersion.getVersion();
        assertTrue(boot.startsWith("3.5."), boot);
        assertTrue(framework.startsWith("6.2."), framework);
    }
}
