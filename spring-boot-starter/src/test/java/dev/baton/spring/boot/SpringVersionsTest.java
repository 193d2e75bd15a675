package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;

/**
 * This module's tests run on Spring Boot 4.0 and Spring Framework 7.0, although the shared module is compiled against
 * Boot 3.5: the shared tests prove nothing about Boot 4 otherwise.
 */
class SpringVersionsTest {
    @Test
    void theTestsRunOnSpringBoot40AndSpringFramework70() {
        String boot = SpringBootVersion.getVersion();
        String framework = SpringVersion.getVersion();
        assertTrue(boot.startsWith("4.0."), boot);
        assertTrue(framework.startsWith("7.0."), framework);
    }
}
