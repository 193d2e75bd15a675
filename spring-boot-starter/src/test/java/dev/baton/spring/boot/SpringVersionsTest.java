package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;

/**
 * This module's tests run on the Spring Boot 4 the build names (4.0; 4.1 with the profile boot41) and Spring Framework
 * 7.0, although the shared module is compiled against Boot 3.5: the shared tests prove nothing about Boot 4 otherwise.
 * The expected Boot line comes from the build ({@code baton.test.spring-boot}), so a profile that forgets to change
 * the Boot version fails here.
 */
class SpringVersionsTest {
    @Test
    void theTestsRunOnTheSpringBootOfTheBuildAndSpringFramework70() {
        String expected = System.getProperty("baton.test.spring-boot", "4.0");
        String boot = SpringBootVersion.getVersion();
        String framework = SpringVersion.getVersion();
        assertTrue(boot.startsWith(expected + "."), boot + ", expected " + expected);
        assertTrue(framework.startsWith("7.0."), framework);
    }
}
