/**
 * The {@code baton} health indicator over Spring Boot 3.5's health types ({@code org.springframework.boot.actuate.health}).
 * {@link org.jspecify.annotations.NullMarked}.
 */
@NullMarked
package dev.baton.spring.boot.health;

import org.jspecify.annotations.NullMarked;
