/**
 * The README's Quick start, as an application a user would write.
 */
package com.example.inventory;
