;;; harness.el --- what the eglot scenarios share  -*- lexical-binding: t; -*-
;; Loads eglot (Debian's elpa), markdown-mode where ERRKNOW_EMACS_MARKDOWN_MODE names its folder, and
;; errknow.el (ERRKNOW_EMACS_SNIPPET); the scenario's findings go to ERRKNOW_E2E_OUT as JSON.

(require 'package)
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require 'json)
(let ((markdown (getenv "ERRKNOW_EMACS_MARKDOWN_MODE"))) ; a folder holding markdown-mode.el
  (when markdown
    (add-to-list 'load-path markdown)
    (require 'markdown-mode)))
(load (getenv "ERRKNOW_EMACS_SNIPPET") nil t)

(defvar errknow-seen nil "What the scenario saw, an alist written as JSON.")

(defun errknow-save ()
  (with-temp-file (getenv "ERRKNOW_E2E_OUT")
    (insert (json-encode errknow-seen))))

(defun errknow-wait (seconds what condition)
  "Let the process output in until CONDITION holds; fail naming WHAT after SECONDS."
  (let ((deadline (+ (float-time) seconds)))
    (while (not (funcall condition))
      (when (> (float-time) deadline)
        (errknow-save)
        (error "Timed out after %s s waiting for %s" seconds what))
      ;; Nothing reads the input queue in batch: a file notification (eglot watches files for the
      ;; server) waits there, and process sentinels wait behind it. Read it as the command loop does.
      (ignore-errors (read-event nil nil 0.01))
      (accept-process-output nil 0.05))))

(defun errknow-diagnostics ()
  "The current buffer's diagnostics, as flymake shows them."
  (flymake-start)
  (mapcar (lambda (d)
            (list (cons 'line (line-number-at-pos (flymake-diagnostic-beg d)))
                  (cons 'type (format "%s" (flymake-diagnostic-type d)))
                  (cons 'text (flymake-diagnostic-text d))))
          (flymake-diagnostics)))

(defun errknow-connect ()
  "Start eglot in the current buffer, as `eglot-ensure' in a mode hook does, and wait for it."
  (eglot-ensure)
  (run-hooks 'post-command-hook)    ; eglot-ensure connects after the next command
  (errknow-wait 30 "eglot to connect" #'eglot-current-server))

(defmacro errknow-scenario (&rest body)
  "Run BODY; save what was seen and exit 0, or save the error and exit 2."
  `(condition-case err
       (progn ,@body
              (errknow-save)
              (kill-emacs 0))
     (error
      (push (cons 'error (error-message-string err)) errknow-seen)
      (errknow-save)
      (kill-emacs 2))))

(provide 'harness)
;;; harness.el ends here
