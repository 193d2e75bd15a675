/** The operations console in a Spring Boot servlet application. */
@NullMarked
package dev.baton.spring.boot.console;

import org.jspecify.annotations.NullMarked;
