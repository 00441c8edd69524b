;;; errknow.el --- errknow-ls for Python buffers through eglot  -*- lexical-binding: t; -*-

;; Load it after eglot, e.g. (with-eval-after-load 'eglot (load "/path/to/errknow.el")),
;; then M-x eglot in a Python buffer, or (add-hook 'python-mode-hook #'eglot-ensure).
;; Eglot runs one server per buffer: this entry takes Python buffers from pylsp/pyright.

;;; Code:

(require 'eglot)
(require 'project)

(defun errknow-server-command (&optional _interactive)
  "The command that starts errknow-ls: the project's .venv, else PATH."
  (let* ((project (project-current))
         (root (if project (project-root project) default-directory))
         (venv (expand-file-name ".venv/bin/errknow-ls" root)))
    (list (cond ((file-executable-p venv) venv)
                ((executable-find "errknow-ls"))
                (t (user-error "errknow-ls not found: pip install it into the project's .venv or on PATH")))
          "serve")))

(add-to-list 'eglot-server-programs
             '((python-mode python-ts-mode) . errknow-server-command))

(provide 'errknow)
;;; errknow.el ends here
